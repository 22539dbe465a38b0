//! `attnscope`: translate, trace, train and evaluate from the command line.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    attnscope::cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}
