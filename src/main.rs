use std::process::ExitCode;

// mimalloc: the import allocates many small, short-lived values (parsed games, move lists)
// across threads; glibc's allocator took a fifth of the workers' time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    qipu::run_cli()
}
