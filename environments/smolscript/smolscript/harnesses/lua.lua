-- @@SOURCE@@

local function smol_line()
  return io.read("l") or ""
end

local function smol_int()
  return math.tointeger(tonumber(smol_line()))
end

-- The number policy of int results (README): an integral float in the int32 range prints as
-- that integer (-0.0 as 0); anything else prints as Lua spells it.
local function smol_int_text(v)
  if math.type(v) == "float" and v == math.floor(v) and v >= -2147483648 and v <= 2147483647 then
    return string.format("%d", v)
  end
  return tostring(v)
end

local function smol_main()
  -- @@READ_ARGS@@
  -- @@CALL_AND_PRINT@@
end

smol_main()
