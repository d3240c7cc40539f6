fn main() -> color_eyre::Result<()> {
    color_eyre::install()?;
    std::process::exit(youra::cli::run()?)
}
