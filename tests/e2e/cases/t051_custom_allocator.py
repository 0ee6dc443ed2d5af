# --mem with a #[global_allocator] of the program's own: the allocations go
# through Rust's shims all the same, and the report names the allocator.
fixture = "customalloc"
patterns = ["customalloc::*"]
record_options = ["--mem"]
