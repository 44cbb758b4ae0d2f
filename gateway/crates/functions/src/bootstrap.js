// Loaded before a function's own module, in the function's Deno process.
// Edge Runtime hands each request to the handler the function gives
// `Deno.serve`, whatever port it names (supabase/edge-runtime); here that
// handler listens on the Unix socket the gateway chose instead.
import { AsyncLocalStorage } from "node:async_hooks";

const socket = __SOCKET__;
const serve = Deno.serve.bind(Deno);
let served = false;

// Each console call becomes one line the gateway reads (worker.rs,
// `forward_logs`): a record separator, then the level, the id of the request
// it was made for (`x-request-id`, which the gateway sets) and the message.
const request = new AsyncLocalStorage();
const write = (level) => (...args) => {
  const message = args.map((a) => (typeof a === "string" ? a : Deno.inspect(a, { colors: false }))).join(" ");
  const line = "\x1e" + JSON.stringify({ level, request_id: request.getStore() ?? null, message }) + "\n";
  Deno.stdout.writeSync(new TextEncoder().encode(line));
};
for (const [method, level] of [["log", "info"], ["info", "info"], ["debug", "debug"], ["warn", "warn"], ["error", "error"]]) {
  console[method] = write(level);
}

// Behind a Unix socket Deno names the scheme `http+unix:`; functions on
// Supabase see `http:` and the host the caller asked for. The getter of
// `Request.prototype.url` says so for every request: building a new Request
// per call with the right URL, as this did first, cost Deno two thirds of its
// throughput (bench/functions.sh), and an own `url` on each request a fifth.
const url = Object.getOwnPropertyDescriptor(Request.prototype, "url");
Object.defineProperty(Request.prototype, "url", {
  ...url,
  get() {
    const href = url.get.call(this);
    return href.startsWith("http+unix:") ? "http:" + href.slice("http+unix:".length) : href;
  },
});

// A handler's error is logged before Deno answers with `onError`. A handler
// that answers at once is not made to wait for a promise.
const failed = (error) => {
  console.error(error);
  throw error;
};

Deno.serve = function (first, second) {
  const options = typeof first === "function" ? {} : (first ?? {});
  const handler = typeof first === "function" ? first : (typeof second === "function" ? second : options.handler);
  served = true;
  const asOnSupabase = (incoming, info) =>
    request.run(incoming.headers.get("x-request-id"), () => {
      let answer;
      try {
        answer = handler(incoming, info);
      } catch (error) {
        failed(error);
      }
      return typeof answer?.then === "function" ? answer.then(undefined, failed) : answer;
    });
  return serve({
    path: socket,
    onListen() {},
    onError: options.onError ?? (() =>
      Response.json(
        { code: "WORKER_ERROR", message: "Function exited due to an error (please check logs)" },
        { status: 500 },
      )),
    signal: options.signal,
  }, asOnSupabase);
};

// On Supabase a variable that is not set reads as `undefined`; here the
// process may only read the variables it was given, and reading another
// would throw.
const get = Deno.env.get.bind(Deno.env);
Deno.env.get = (name) => {
  try {
    return get(name);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) return undefined;
    throw error;
  }
};

export function served_() {
  return served;
}
