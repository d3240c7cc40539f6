//! Words for the generated bash: the batch script (`script.rs`) and the watchdog it embeds
//! (`watchdog.rs`) quote with the same rule, kept below both.

/// `'…'` with each `'` written as `'\''`: bash takes everything else literally.
pub fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}
