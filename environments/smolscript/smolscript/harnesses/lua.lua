-- @@SOURCE@@

local function smol_line()
  return io.read("l") or ""
end

local function smol_int()
  return math.tointeger(tonumber(smol_line()))
end

-- Lua has one number type with two subtypes; an integral float counts as that integer.
local function smol_int_text(v)
  if math.type(v) == "float" and v == math.floor(v) then
    return string.format("%d", v)
  end
  return tostring(v)
end

local function smol_main()
  -- @@READ_ARGS@@
  -- @@CALL_AND_PRINT@@
end

smol_main()
