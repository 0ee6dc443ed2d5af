# A run that cannot start is exit status 2, said at the line of the run;
# what follows it does not run.
fixture = "recursion"
opt_levels = ["0"]
session = {
    "text": "file {missing}\ntrace recursion::*\nrun\necho not reached\n",
    "program": False,
    "exit": 2,
    "stdout_empty": True,
    "stderr_lines": 2,
    "stderr_contains": ["{missing}",
                        "session.rtx:3:1: run: the program could not be started"],
}
