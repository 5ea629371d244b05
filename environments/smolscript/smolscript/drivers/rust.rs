// The harness's entry point is the C `main` symbol below (`#![no_main]`), so that a `fn main`
// written in the candidate's code is an ordinary function that never runs.
#![no_main]
// @@SOURCE@@

mod smol_entry {
    /// The process entry point; a panic exits with 101, as a Rust `fn main` would.
    #[no_mangle]
    pub extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
        let code = match std::panic::catch_unwind(super::smol_main) {
            Ok(()) => 0,
            Err(_) => 101,
        };
        // No Rust runtime shuts down after a C `main`: flush what is still buffered.
        let _ = std::io::Write::flush(&mut std::io::stdout());
        code
    }
}

/// A str result (the str type of smolscript/types.py) is printable ASCII, bytes 32..126: any
/// other byte (a NUL, a control character, a line end, part of a look-alike) is a type
/// mismatch, reported on stderr as types.parse_type_mismatch reads it, and the run exits with
/// its status.
#[allow(dead_code)]
fn smol_checked_str(text: String) -> String {
    if let Some(i) = text.bytes().position(|b| !(32..=126).contains(&b)) {
        eprintln!(
            "smolscript-harness: result type mismatch: expected str, got string with byte 0x{:02X} at index {} (not printable ASCII)",
            text.as_bytes()[i],
            i
        );
        std::process::exit(97);
    }
    text
}

/// The result `text`, framed with the job's nonce (smolscript/frames.py), in one write once the
/// entry point has returned: the host reads only this block, so nothing the candidate prints
/// stands in for it.
fn smol_emit(nonce: &str, text: &str) {
    print!("smolscript-result-begin {}\n{}\nsmolscript-result-end {}\n", nonce, text, nonce);
    let _ = std::io::Write::flush(&mut std::io::stdout());
}

#[allow(unused_mut)]
fn smol_main() {
    let mut smol_input = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut smol_input).unwrap();
    let mut smol_lines = smol_input.split('\n');
    let mut smol_line = move || -> String { smol_lines.next().unwrap_or("").to_string() };
    // The nonce is the first stdin line, kept only in this function.
    let smol_nonce = smol_line();
    // @@READ_ARGS@@
    // @@CALL_AND_PRINT@@
}
