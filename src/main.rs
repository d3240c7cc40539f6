fn main() -> color_eyre::Result<()> {
    // An ordinary error (a missing folder, a refused write) is a message, not a crash:
    // error reports carry no backtrace unless RUST_LIB_BACKTRACE asks for one, while panics
    // still honour RUST_BACKTRACE. Set before any thread exists, as set_var requires.
    if std::env::var_os("RUST_LIB_BACKTRACE").is_none() {
        // SAFETY: main's first statement; no other thread reads the environment yet.
        unsafe { std::env::set_var("RUST_LIB_BACKTRACE", "0") };
    }
    // Plain reports, on a terminal too: an error's message can quote a statement or a file
    // (model text), and it is escaped as a whole below, which would mangle styling of our own.
    let hooks = color_eyre::config::HookBuilder::default()
        .display_env_section(false)
        .theme(color_eyre::config::Theme::new());
    let (panic_hook, eyre_hook) = hooks.into_hooks();
    eyre_hook.install()?;
    let panic_hook = panic_hook.into_panic_hook();
    std::panic::set_hook(Box::new(move |info| {
        // `youra status run | head -1`: the reader left; stop quietly, as `cat` does.
        if broken_pipe(info) {
            std::process::exit(141);
        }
        // A panic message can quote outside text too: one holding control or bidi characters
        // is printed escaped, in place of the hook's report (which would print it raw).
        let msg = message(info);
        if let std::borrow::Cow::Owned(escaped) = youra::term::escape(msg) {
            let at = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()));
            eprintln!(
                "The application panicked (crashed).\nMessage:  {escaped}\nLocation: {}",
                at.unwrap_or_default()
            );
            return;
        }
        panic_hook(info)
    }));
    match youra::cli::run() {
        Ok(code) => std::process::exit(code),
        Err(report) => {
            // Every command's one error format (`cli::error_text`), escaped, with the exit
            // status a folder without a run gets from every command.
            let (text, code) = youra::cli::report_error(&report);
            eprint!("{text}");
            std::process::exit(code)
        }
    }
}

/// A panic's message, when it is text (it almost always is).
fn message<'a>(info: &'a std::panic::PanicHookInfo<'_>) -> &'a str {
    info.payload()
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| info.payload().downcast_ref::<&str>().copied())
        .unwrap_or("")
}

fn broken_pipe(info: &std::panic::PanicHookInfo<'_>) -> bool {
    let msg = message(info);
    msg.starts_with("failed printing to std") && msg.contains("Broken pipe")
}
