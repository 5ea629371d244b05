// @@SOURCE@@

const smolLines = require("fs").readFileSync(0, "utf8").split("\n");
let smolPos = 0;
function smolLine() {
  smolPos += 1;
  return smolPos <= smolLines.length ? smolLines[smolPos - 1] : "";
}
function smolInt() {
  return parseInt(smolLine(), 10);
}
// What a value is, for a type-mismatch message: typeof's word, "null", "array", or "object"
// with its built-in tag ("object (Object)", "object (Number)", "object (Int32Array)", ...).
function smolKind(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object (" + Object.prototype.toString.call(value).slice(8, -1) + ")";
  return typeof value;
}
// [null, text] when every UTF-16 unit of the string `text` is printable ASCII (" " to "~", the
// str type of smolscript/types.py), else [the first other character and its index]: a control
// character, a line end or a look-alike never prints as the expected text it resembles.
function smolPrintable(text) {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 32 || code > 126) {
      const hex = text.codePointAt(i).toString(16).toUpperCase().padStart(4, "0");
      return ["string with U+" + hex + " at index " + i + " (not printable ASCII)"];
    }
  }
  return [null, text];
}
// [null, checked value] when `value` is a value of type `typ` (the type names of
// smolscript/types.py), else [what it is instead]. An int is a number that is an integer
// (JavaScript has no other integers: 3.0 is 3; a BigInt is not a number); a list is an array
// whose items are read once, into a fresh array, and each checked.
function smolCheck(value, typ) {
  if (typ === "int") {
    if (typeof value === "number" && Number.isInteger(value)) return [null, value];
    return [typeof value === "number" ? "non-integer number" : smolKind(value)];
  }
  if (typ === "bool") return typeof value === "boolean" ? [null, value] : [smolKind(value)];
  if (typ === "str") return typeof value === "string" ? smolPrintable(value) : [smolKind(value)];
  if (typ.startsWith("list[") && typ.endsWith("]")) {
    if (!Array.isArray(value)) return [smolKind(value)];
    const items = [];
    for (let i = 0, n = value.length; i < n; i++) {
      const [why, item] = smolCheck(value[i], typ.slice(5, -1));
      if (why !== null) return ["array with " + why + " at index " + i];
      items.push(item);
    }
    return [null, items];
  }
  return ["a value for the unknown type " + typ];
}
// The result when it has the declared type `typ`; else the mismatch goes to stderr in the
// format of smolscript.types.parse_type_mismatch and the run exits with its status.
function smolChecked(value, typ) {
  const [why, checked] = smolCheck(value, typ);
  if (why === null) return checked;
  process.stderr.write("smolscript-harness: result type mismatch: expected " + typ + ", got " + why + "\n");
  process.exit(97);
}
function smolJoin(items) {
  let text = "";
  for (let i = 0; i < items.length; i++) text += (i ? " " : "") + String(items[i]);
  return text;
}
// The result `text`, framed with the job's nonce (smolscript/frames.py), in one write once the
// entry point has returned: the host reads only this block, so nothing the candidate prints
// stands in for it.
function smolEmit(nonce, text) {
  process.stdout.write("smolscript-result-begin " + nonce + "\n" + text + "\nsmolscript-result-end " + nonce + "\n");
}
(function smolMain() {
  // The nonce is the first stdin line, kept only in this closure.
  const smolNonce = smolLine();
  smolLines[0] = "";
  // @@READ_ARGS@@
  // @@CALL_AND_PRINT@@
})();
