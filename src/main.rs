use std::process::ExitCode;

fn main() -> ExitCode {
    qipu::cli::main()
}
