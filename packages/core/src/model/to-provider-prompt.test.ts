import { describe, expect, it } from "vitest";
import { toProviderPrompt } from "./to-provider-prompt.js";
import { reasoningDetailsMark, type Message } from "./types.js";

const png = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGP4z8AARwzEcQCukw/x0F8jngAAAABJRU5ErkJggg==";
const conversation: Message[] = [
  { role: "user", content: [{ type: "text", text: "Look at shot.png" }] },
  { role: "assistant", content: [{ type: "tool-call", id: "call_1", name: "read_file", input: { path: "shot.png" } }] },
  {
    role: "user",
    content: [
      { type: "tool-result", toolCallId: "call_1", toolName: "read_file", isError: false, content: [{ type: "text", text: "[Image shot.png]" }, { type: "image", mediaType: "image/png", data: png }] },
      { type: "text", text: "[Environment]" },
    ],
  },
];

describe("toProviderPrompt: images in tool results", () => {
  it("on Chat Completions, keeps the tool message text and sends the image as an image part in the next user message", () => {
    const prompt = toProviderPrompt("s", conversation, { anthropic: false, images: true });
    const tool = prompt.find((m) => m.role === "tool")!;
    expect(JSON.stringify(tool)).not.toContain(png);
    expect(tool.content[0]).toMatchObject({ output: { type: "text", value: "[Image shot.png]\n[The image of this result is in the next user message.]" } });
    const next = prompt[prompt.indexOf(tool) + 1]!;
    expect(next.role).toBe("user");
    expect(next.content).toEqual([
      { type: "text", text: "The image from the read_file result (call_1):" },
      { type: "file", data: png, mediaType: "image/png" },
      { type: "text", text: "[Environment]" },
    ]);
  });

  it("on the Anthropic wire, keeps the image inside the tool result, which that wire takes", () => {
    const prompt = toProviderPrompt("s", conversation, { anthropic: true, images: true });
    const tool = prompt.find((m) => m.role === "tool")!;
    expect(tool.content[0]).toMatchObject({ output: { type: "content", value: [{ type: "text" }, { type: "image-data", data: png }] } });
  });

  it("gives a text-only model a one-line note instead of the image, on either wire", () => {
    for (const anthropic of [false, true]) {
      const text = JSON.stringify(toProviderPrompt("s", conversation, { anthropic, images: false }));
      expect(text).not.toContain(png);
      expect(text).toContain("[An image (image/png) was left out: this model does not take images.]");
    }
  });
});

describe("toProviderPrompt: OpenRouter's reasoning details", () => {
  const details = [{ type: "reasoning.text", text: "2+2 is 4.", signature: "Et0B", format: "anthropic-claude-v1", index: 0 }];
  const withDetails: Message[] = [
    { role: "user", content: [{ type: "text", text: "What is 2+2?" }] },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "2+2 is 4." },
        { type: "text", text: "4" },
        { type: "reasoning", text: "", signature: `${reasoningDetailsMark}${JSON.stringify(details)}` },
      ],
    },
  ];

  it("go back on the assistant message on the compatible wire", () => {
    const assistant = toProviderPrompt("s", withDetails, { anthropic: false, images: true, reasoningDetails: true }).find((m) => m.role === "assistant")!;
    expect(assistant.providerOptions).toEqual({ openaiCompatible: { reasoning_details: details } });
    expect(JSON.stringify(assistant.content)).not.toContain("Et0B");
  });

  it("are left out on the Anthropic wire, never sent as a signature", () => {
    const prompt = toProviderPrompt("s", withDetails, { anthropic: true, images: true });
    expect(JSON.stringify(prompt)).not.toContain("Et0B");
  });
});
