# The CI example of docs/examples: every expect holds on the recursion
# fixture, whose counts at these arguments are known by construction;
# the report and the Perfetto export go through the CLI's own code.
fixture = "recursion"
args = ["10", "7", "12"]
session = {
    "script": "docs/examples/ci-counts.rtx",
    "exit": 0,
    "stdout_contains": ["COUNT recursion::fib 465", "calls", "function",
                        "465", "recursion::fib", "11", "recursion::descend"],
    "stderr_lines": 1,
    "stderr_contains": ["rtrace: traced"],
    "files": ["recursion.json"],
}
