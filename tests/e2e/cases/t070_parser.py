# A parser-shaped program (a cursor with tiny is_eof/peek/bump methods)
# making about 2.6 million traced calls: exact counts, and the share of
# events the inline engine records without a stop (every site of these
# functions can be patched).  Under --engine trap the same counts, on a
# smaller input (a stop per hit).
fixture = "parser"
args = ["100000"]
patterns = ["parser::*"]
inline_share = {"0": 0.99, "3": 0.95}
timeout = 300
