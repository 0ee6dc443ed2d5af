# Trait-impl methods, whose names start with `<`, called through
# `dyn Shape` vtables and through format!(): `traits::*` must select
# `<traits::Circle as traits::Shape>::area` and friends.
fixture = "traits"
args = ["1"]
patterns = ["traits::*"]
v0 = True
