# The parser-shaped program of t070 with breakpoints everywhere: the same
# exact counts from the other engine, on a smaller input.
fixture = "parser"
args = ["3000"]
patterns = ["parser::*"]
record_options = ["--engine", "trap"]
