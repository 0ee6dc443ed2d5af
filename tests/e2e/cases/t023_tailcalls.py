# Tail calls at -O3: `jmp` to a traced function (twice in a row), a
# conditional tail call `je` to a traced function, and an indirect `jmp`
# into std::thread::sleep (untraced) from a function without any `ret`.
# The O0 build makes the same calls with `call` and has the same counts.
# The code shape the fixture relies on is checked on the -O3 build: if
# LLVM stops emitting these tail calls, the case says so instead of
# passing without testing them.
fixture = "tailcalls"
args = ["1000", "200"]
patterns = ["tailcalls::*"]
objdump_expect = {
    "tailcalls::jumper": ["jmp:tailcalls::target", "no ret"],
    "tailcalls::hop": ["jmp:tailcalls::jumper", "no ret"],
    "tailcalls::cond_jumper": ["jcc:tailcalls::even_target", "ret"],
    "tailcalls::nap": ["jmp:std::thread::*sleep", "no ret"],
}
