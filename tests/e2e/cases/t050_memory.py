# --mem: allocations, bytes, frees, live bytes per function, exactly as the
# fixture made them (fixed-size Vecs, a growing Vec, two leaks, a thread
# pool), and the peak, held by the function that holds the largest block.
fixture = "memprof"
patterns = ["memprof::*"]
record_options = ["--mem"]
