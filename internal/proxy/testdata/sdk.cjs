// The official Node SDK clients (@anthropic-ai/sdk, openai) read replies
// through the fault proxy. Run by TestTheNodeSDKsParseEveryReply:
//
//   node sdk.cjs PROXY_URL CASES_JSON
//
// CASES_JSON is a list of {sdk, op, stream, fault}; the cases run one
// after another, one request each (the clients' retries are off), so case
// i is the proxy's request i+1. One JSON line per case goes to stdout:
// what the client made of the reply.
const Anthropic = require("@anthropic-ai/sdk").default;
const OpenAI = require("openai").default;

const [base, casesJSON] = process.argv.slice(2);
const cases = JSON.parse(casesJSON);

const anthropic = new Anthropic({ apiKey: "sk-ant-made-up-for-the-sdk-test", baseURL: base, maxRetries: 0 });
const openai = new OpenAI({ apiKey: "sk-made-up-for-the-sdk-test", baseURL: base + "/v1", maxRetries: 0 });

const tools = [{ name: "read_file", description: "Read a file", input_schema: { type: "object", properties: { path: { type: "string" } } } }];
const messages = [{ role: "user", content: "Summarise notes.txt" }];

// A stream that sends nothing for this long is given up, as a stall watch
// would; a request without a reply is given up after as long.
const quiet = 1000;

// watch aborts ctl when the stream is quiet for too long; poke() on each
// event.
function watch(ctl) {
  let timer = setTimeout(() => ctl.abort(), quiet);
  return {
    poke() {
      clearTimeout(timer);
      timer = setTimeout(() => ctl.abort(), quiet);
    },
    done() {
      clearTimeout(timer);
    },
  };
}

async function anthropicCase(c) {
  const opts = { timeout: quiet };
  switch (c.op) {
    case "count_tokens": {
      const r = await anthropic.messages.countTokens({ model: "claude-sonnet-4-5", messages }, opts);
      return { input_tokens: r.input_tokens };
    }
    case "models": {
      const ids = [];
      for await (const m of anthropic.models.list({}, opts)) ids.push(m.id);
      return { models: ids };
    }
  }
  const params = { model: "claude-sonnet-4-5", max_tokens: 256, tools, messages };
  let msg;
  if (!c.stream) {
    msg = await anthropic.messages.create(params, opts);
  } else {
    const ctl = new AbortController();
    const w = watch(ctl);
    const s = anthropic.messages.stream(params, { signal: ctl.signal });
    s.on("streamEvent", () => w.poke());
    try {
      msg = await s.finalMessage();
    } finally {
      w.done();
    }
  }
  return {
    stop: msg.stop_reason,
    text: msg.content.filter((b) => b.type === "text").map((b) => b.text).join(""),
    tools: msg.content.filter((b) => b.type === "tool_use").map((b) => ({ name: b.name, input: typeof b.input === "string" ? b.input : JSON.stringify(b.input) })),
  };
}

async function openaiCase(c) {
  const opts = { timeout: quiet };
  if (c.op === "models") {
    const ids = [];
    for await (const m of openai.models.list(opts)) ids.push(m.id);
    return { models: ids };
  }
  const params = {
    model: "gpt-4.1",
    max_tokens: 256,
    messages,
    tools: tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.input_schema } })),
  };
  if (!c.stream) {
    const r = await openai.chat.completions.create(params, opts);
    const m = r.choices[0].message;
    return {
      stop: r.choices[0].finish_reason,
      text: m.content || "",
      tools: (m.tool_calls || []).map((t) => ({ name: t.function.name, input: t.function.arguments })),
    };
  }
  const ctl = new AbortController();
  const w = watch(ctl);
  const s = await openai.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } }, { signal: ctl.signal });
  let text = "", stop = null;
  const calls = [];
  try {
    for await (const chunk of s) {
      w.poke();
      for (const ch of chunk.choices) {
        if (ch.delta.content) text += ch.delta.content;
        for (const tc of ch.delta.tool_calls || []) {
          calls[tc.index] = calls[tc.index] || { name: "", input: "" };
          if (tc.function && tc.function.name) calls[tc.index].name += tc.function.name;
          if (tc.function && tc.function.arguments) calls[tc.index].input += tc.function.arguments;
        }
        if (ch.finish_reason) stop = ch.finish_reason;
      }
    }
  } finally {
    w.done();
  }
  // An aborted stream ends the loop without an error: say why it ended.
  if (ctl.signal.aborted) throw new Error(`stalled: the stream sent nothing for ${quiet}ms`);
  return { stop, text, tools: calls };
}

(async () => {
  for (const c of cases) {
    const out = { ...c };
    try {
      out.reply = await (c.sdk === "anthropic" ? anthropicCase(c) : openaiCase(c));
    } catch (e) {
      out.error = { name: e.constructor.name, status: e.status, message: String(e.message).slice(0, 200) };
      if (e.headers && typeof e.headers.get === "function") out.error.retry_after = e.headers.get("retry-after");
    }
    process.stdout.write(JSON.stringify(out) + "\n");
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
