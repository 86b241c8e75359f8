// stream.mjs SDK BASE_URL MODEL PROMPT — streams one answer with an official
// SDK (openai or anthropic) and prints {"text": …} or {"error": …} as JSON.
// Test-only: drip's integration tests run it through drip record and
// drip fixtures serve --from.
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";

const [sdk, baseURL, model, prompt] = process.argv.slice(2);
const apiKey = process.env.DRIP_TEST_KEY;
let text = "";
try {
  if (sdk === "openai") {
    const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model, stream: true, stream_options: { include_usage: true },
      messages: [{ role: "user", content: prompt }],
    });
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
    }
  } else if (sdk === "anthropic") {
    const client = new Anthropic({ baseURL, apiKey, maxRetries: 0 });
    const stream = await client.messages.create({
      model, max_tokens: 256, stream: true,
      messages: [{ role: "user", content: prompt }],
    });
    for await (const ev of stream) {
      if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") {
        text += ev.delta.text;
      }
    }
  } else {
    throw new Error("unknown sdk " + sdk);
  }
  console.log(JSON.stringify({ text }));
} catch (e) {
  console.log(JSON.stringify({ error: String(e), text }));
  process.exit(1);
}
