-- wrk's request generator for the waitlist bench. Every request joins with an address that is new
-- (prefixed by the run, so that no two runs share one), or, with probability BENCH_REPEAT, one of
-- BENCH_KNOWN addresses that the warm-up has already registered.
local prefix = os.getenv("BENCH_PREFIX") or "run"
local repeatShare = tonumber(os.getenv("BENCH_REPEAT") or "0")
local known = tonumber(os.getenv("BENCH_KNOWN") or "1000")
local counter = 0

wrk.method = "POST"
wrk.path = "/v1/waitlist"
wrk.headers["Content-Type"] = "application/json"

request = function()
  local email
  if repeatShare > 0 and math.random() < repeatShare then
    email = "known." .. math.random(known) .. "@example.com"
  else
    counter = counter + 1
    email = prefix .. "." .. counter .. "@example.com"
  end
  return wrk.format(nil, nil, nil, '{"email":"' .. email .. '","source":"landing"}')
end
