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
(function smolMain() {
  // @@READ_ARGS@@
  // @@CALL_AND_PRINT@@
})();
