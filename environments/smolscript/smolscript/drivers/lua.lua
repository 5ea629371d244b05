-- @@SOURCE@@

local function smol_line()
  return io.read("l") or ""
end

local function smol_int()
  return math.tointeger(tonumber(smol_line()))
end

-- The number policy of int results (README): an integral float in the int32 range counts as
-- that integer (-0.0 as 0).
local function smol_integral_float(v)
  return math.type(v) == "float" and v == math.floor(v) and v >= -2147483648 and v <= 2147483647
end

-- A checked int result: an integer, or an integral float printed as its integer.
local function smol_int_text(v)
  if smol_integral_float(v) then
    return string.format("%d", v)
  end
  return tostring(v)
end

-- What a value is, for a type-mismatch message: math.type's word for numbers, else type's.
local function smol_kind(v)
  return math.type(v) or type(v)
end

-- nil and the checked value when `v` is a value of type `typ` (the type names of
-- smolscript/types.py), else what it is instead. A string is not a number (and a number not a
-- string); a list is a table whose raw keys are exactly 1..n (a sequence: no holes, no other
-- keys, metatables ignored), read once into a fresh table and each item checked; a string holds
-- printable ASCII bytes only (" " to "~": a control character, a line end or the bytes of a
-- look-alike never print as the expected text they resemble).
local function smol_check(v, typ)
  if typ == "int" then
    if math.type(v) == "integer" or smol_integral_float(v) then return nil, v end
    return smol_kind(v)
  elseif typ == "bool" then
    if type(v) == "boolean" then return nil, v end
    return smol_kind(v)
  elseif typ == "str" then
    if type(v) ~= "string" then return smol_kind(v) end
    local at = string.find(v, "[^ -~]")
    if at == nil then return nil, v end
    return string.format("string with byte 0x%02X at index %d (not printable ASCII)",
      string.byte(v, at), at)
  elseif typ:sub(1, 5) == "list[" and typ:sub(-1) == "]" then
    if type(v) ~= "table" then return smol_kind(v) end
    local n = 0
    for key in next, v do
      if math.type(key) ~= "integer" or key < 1 then
        return "table with the key " .. tostring(key) .. " (not a sequence)"
      end
      n = n + 1
    end
    local items = {}
    for i = 1, n do
      local why, item = smol_check(rawget(v, i), typ:sub(6, -2))
      if why ~= nil then return "table with " .. why .. " at index " .. i end
      items[i] = item
    end
    return nil, items
  end
  return "a value for the unknown type " .. typ
end

-- The result when it has the declared type `typ`; else the mismatch goes to stderr in the
-- format of smolscript.types.parse_type_mismatch and the run exits with its status.
local function smol_checked(v, typ)
  local why, checked = smol_check(v, typ)
  if why == nil then return checked end
  io.stderr:write("smolscript-harness: result type mismatch: expected ", typ, ", got ", why, "\n")
  os.exit(97)
end

-- The result `text`, framed with the job's nonce (smolscript/frames.py), in one write once the
-- entry point has returned: the host reads only this block, so nothing the candidate prints
-- stands in for it.
local function smol_emit(nonce, text)
  io.write("smolscript-result-begin ", nonce, "\n", text, "\nsmolscript-result-end ", nonce, "\n")
  io.flush()
end

local function smol_main()
  -- The nonce is the first stdin line, kept only in this function.
  local smol_nonce = smol_line()
  -- @@READ_ARGS@@
  -- @@CALL_AND_PRINT@@
end

smol_main()
