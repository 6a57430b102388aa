import { describe, expect, it } from "vitest";
import { resourceResultFromMcp, toolResultFromMcp } from "./result.js";

const png = "iVBORw0KGgoAAAANSUhEUg==";

describe("MCP results for the model", () => {
  it("joins text, describes audio and resource links, embeds resources as their text, and keeps isError", () => {
    const result = toolResultFromMcp(
      {
        content: [
          { type: "text", text: "one" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
          { type: "resource", resource: { uri: "file:///b.txt", text: "embedded b" } },
          { type: "resource", resource: { uri: "file:///c.bin", blob: "AAECAw==", mimeType: "application/octet-stream" } },
        ],
        isError: true,
      },
      true,
    );
    expect(result).toEqual({
      content:
        "one\n[audio (audio/wav, 3 bytes) left out: audio cannot be shown to the model]\n[resource file:///a.txt (a.txt); read it with access_mcp_resource]\nembedded b\n[binary resource file:///c.bin (application/octet-stream, 4 bytes); it cannot be shown as text]",
      isError: true,
    });
  });

  it("shows structured content when a tool gives no content blocks", () => {
    expect(toolResultFromMcp({ content: [], structuredContent: { temperature: 21 } }, false)).toEqual({ content: '{\n  "temperature": 21\n}' });
    expect(toolResultFromMcp({ content: [] }, false)).toEqual({ content: "(the tool returned no content)" });
  });

  it("passes images as pictures only to a model that takes them", () => {
    const result = { content: [{ type: "image" as const, data: png, mimeType: "image/png" }] };
    expect(toolResultFromMcp(result, true).content).toEqual([{ type: "image", mediaType: "image/png", data: png }]);
    expect(toolResultFromMcp(result, false).content).toBe("[an image (image/png, 16 bytes) left out: the current model cannot take images]");
    expect(resourceResultFromMcp({ contents: [{ uri: "x://logo", blob: png, mimeType: "image/png" }] }, true).content).toEqual([
      { type: "image", mediaType: "image/png", data: png },
    ]);
    expect(resourceResultFromMcp({ contents: [] }, true)).toEqual({ content: "(the resource is empty)" });
  });
});
