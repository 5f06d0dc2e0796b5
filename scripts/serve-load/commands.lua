-- wrk: POST /commands, every request a command (or a batch) no earlier request decides against.
-- BATCH (environment, default 1) commands a request; a batch is NDJSON of add/remove pairs on one
-- stream, so each command is accepted; a single command adds a product to a stream of its own.
local batch = tonumber(os.getenv("BATCH") or "1")
local counter = 0
local threads = {}

function setup(thread)
  thread:set("thread_id", #threads + 1)
  table.insert(threads, thread)
end

function request()
  counter = counter + 1
  local stream = "w" .. thread_id .. "-" .. counter
  if batch == 1 then
    local body = '{"type":"cart.addProduct","stream":"' .. stream .. '","productId":"p1","unitPrice":100,"quantity":1}'
    return wrk.format("POST", "/commands", {["Content-Type"] = "application/json"}, body)
  end
  local lines = {}
  for i = 1, batch do
    if i % 2 == 1 then
      lines[i] = '{"type":"cart.addProduct","stream":"' .. stream .. '","productId":"p1","unitPrice":100,"quantity":1}'
    else
      lines[i] = '{"type":"cart.removeProduct","stream":"' .. stream .. '","productId":"p1"}'
    end
  end
  return wrk.format("POST", "/commands", {["Content-Type"] = "application/x-ndjson"}, table.concat(lines, "\n") .. "\n")
end
