// @@SOURCE@@

#[allow(unused_mut)]
fn main() {
    let mut smol_input = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut smol_input).unwrap();
    let mut smol_lines = smol_input.split('\n');
    let mut smol_line = move || -> String { smol_lines.next().unwrap_or("").to_string() };
    // @@READ_ARGS@@
    // @@CALL_AND_PRINT@@
}
