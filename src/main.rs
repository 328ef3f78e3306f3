use std::process::ExitCode;

// mimalloc: the import allocates many small, short-lived values (parsed games, move lists)
// across threads; glibc's allocator took a fifth of the workers' time. Its version 2 (the
// `v2` feature): version 3 returns freed pages to the system only after 1 s (10 s for its
// arenas), version 2 after 10 ms; the 1M-game import's peak RSS was 1.57 GB with version 3
// and 1.38 GB with version 3 told to return them at once (`MIMALLOC_PURGE_DELAY=0`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    qipu::run_cli()
}
