use std::io::IsTerminal;

fn main() -> color_eyre::Result<()> {
    // An ordinary error (a missing folder, a refused write) is a message, not a crash:
    // error reports carry no backtrace unless RUST_LIB_BACKTRACE asks for one, while panics
    // still honour RUST_BACKTRACE. Set before any thread exists, as set_var requires.
    if std::env::var_os("RUST_LIB_BACKTRACE").is_none() {
        // SAFETY: main's first statement; no other thread reads the environment yet.
        unsafe { std::env::set_var("RUST_LIB_BACKTRACE", "0") };
    }
    let mut hooks = color_eyre::config::HookBuilder::default().display_env_section(false);
    if !std::io::stderr().is_terminal() || std::env::var_os("NO_COLOR").is_some() {
        // Redirected to a file or a pipe: no ANSI escapes in what someone will read later.
        hooks = hooks.theme(color_eyre::config::Theme::new());
    }
    let (panic_hook, eyre_hook) = hooks.into_hooks();
    eyre_hook.install()?;
    let panic_hook = panic_hook.into_panic_hook();
    std::panic::set_hook(Box::new(move |info| {
        // `youra status run | head -1`: the reader left; stop quietly, as `cat` does.
        if broken_pipe(info) {
            std::process::exit(141);
        }
        panic_hook(info)
    }));
    std::process::exit(youra::cli::run()?)
}

fn broken_pipe(info: &std::panic::PanicHookInfo<'_>) -> bool {
    let msg = info
        .payload()
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| info.payload().downcast_ref::<&str>().copied())
        .unwrap_or("");
    msg.starts_with("failed printing to std") && msg.contains("Broken pipe")
}
