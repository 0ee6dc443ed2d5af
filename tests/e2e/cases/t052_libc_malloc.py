# --mem with libc's malloc and free called through FFI: probed in libc,
# a shared library resolved in the live process.
fixture = "ffimalloc"
patterns = ["ffimalloc::*"]
record_options = ["--mem"]
