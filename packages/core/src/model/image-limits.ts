import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { ImagePart, ProviderId, TextPart } from "./types.js";

/**
 * What a provider accepts of one image, from its documentation. `maxEdge`: a longer side is
 * rejected (Anthropic: 8000 px); `bestEdge`: a longer side is shrunk by the provider anyway, so it is
 * only paid for in bytes (Anthropic: 1568 px; OpenAI's high detail fits 2048 px); `maxBytes`: the
 * base64 size over which the request is rejected (Anthropic: 5 MB; OpenAI: 20 MB).
 */
export type ImageLimits = { name: string; maxEdge: number; bestEdge: number; maxBytes: number };

const MB = 1024 * 1024;

export function imageLimits(provider: ProviderId): ImageLimits {
  if (provider === "anthropic") return { name: "Anthropic", maxEdge: 8000, bestEdge: 1568, maxBytes: 5 * MB };
  if (provider === "openai") return { name: "OpenAI", maxEdge: 8000, bestEdge: 2048, maxBytes: 20 * MB };
  // Gateways and compatible servers: OpenAI's size, Anthropic's bytes (a gateway often ends at Claude).
  return { name: provider, maxEdge: 8000, bestEdge: 2048, maxBytes: 5 * MB };
}

type Fitted = Array<ImagePart | TextPart>;
/**
 * The image codecs load with the first image that needs them, not with every request's module:
 * ~60 CommonJS files, ~13 ms of compiling in a task that sends no picture.
 */
const requireCodec = createRequire(import.meta.url);
type Codecs = { imageSize: typeof import("image-size").imageSize; jpeg: typeof import("jpeg-js"); PNG: typeof import("pngjs").PNG };
let loaded: Codecs | undefined;
function codecs(): Codecs {
  loaded ??= {
    imageSize: (requireCodec("image-size") as typeof import("image-size")).imageSize,
    jpeg: requireCodec("jpeg-js") as typeof import("jpeg-js"),
    PNG: (requireCodec("pngjs") as typeof import("pngjs")).PNG,
  };
  return loaded;
}

// Each request sends the whole conversation again: an image is shrunk once, not once per turn.
const fittedCache = new Map<string, Fitted>();
const cacheSize = 32;

/**
 * The image as the provider can take it: unchanged when within its limits; a PNG or JPEG larger
 * than the provider uses is scaled down (area-averaged) and followed by a one-line note of the
 * scale, so the model can map what it sees to the real pixels; an image that cannot be read or
 * shrunk and would be rejected becomes a one-line note saying its size and the limit.
 */
export function fitImage(image: ImagePart, limits: ImageLimits): Fitted {
  const key = `${limits.name}:${limits.bestEdge}:${limits.maxBytes}:${createHash("sha1").update(image.data).digest("hex")}`;
  const cached = fittedCache.get(key);
  if (cached) return cached;
  const fitted = fit(image, limits);
  fittedCache.set(key, fitted);
  if (fittedCache.size > cacheSize) fittedCache.delete(fittedCache.keys().next().value!);
  return fitted;
}

function fit(image: ImagePart, limits: ImageLimits): Fitted {
  const bytes = Buffer.from(image.data, "base64");
  let width = 0;
  let height = 0;
  try {
    ({ width = 0, height = 0 } = codecs().imageSize(bytes));
  } catch {
    // Unreadable dimensions: judged by its bytes only.
  }
  const edge = Math.max(width, height);
  if (edge <= limits.bestEdge && image.data.length <= limits.maxBytes) return [image];
  const scale = Math.min(1, limits.bestEdge / edge);
  const shrunk = edge > 0 ? shrink(bytes, image.mediaType, Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale)), limits.maxBytes) : undefined;
  if (shrunk) {
    return [shrunk.image, { type: "text", text: `[The image was scaled from ${width}×${height} to ${shrunk.width}×${shrunk.height} px to fit ${limits.name}'s image limits.]` }];
  }
  // Over the size the provider uses but within what it accepts: sent as it is, the provider shrinks it.
  if (edge <= limits.maxEdge && image.data.length <= limits.maxBytes) return [image];
  const size = edge > 0 ? `${width}×${height} px, ` : "";
  return [{
    type: "text",
    text: `[An image (${image.mediaType}, ${size}${(image.data.length / MB).toFixed(1)} MB as sent) was left out: over ${limits.name}'s limit of ${limits.maxEdge} px a side and ${limits.maxBytes / MB} MB, and it could not be scaled down.]`,
  }];
}

type Shrunk = { image: ImagePart; width: number; height: number };

/** Decodes a PNG or JPEG, scales it to width×height and encodes it again; undefined when it cannot. */
function shrink(bytes: Buffer, mediaType: string, width: number, height: number, maxBytes: number): Shrunk | undefined {
  const { jpeg, PNG } = codecs();
  let source: { width: number; height: number; data: Uint8Array };
  try {
    if (mediaType === "image/png") source = PNG.sync.read(bytes);
    else if (mediaType === "image/jpeg") source = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 2048, maxResolutionInMP: 400 });
    else return undefined;
  } catch {
    return undefined;
  }
  const data = scaleRgba(source, width, height);
  const encodings: Array<() => ImagePart> = [
    ...(mediaType === "image/png" ? [() => ({ type: "image" as const, mediaType: "image/png", data: pngOf(data, width, height) })] : []),
    // A photo-like PNG can stay large even scaled; JPEG is what fits then (its transparency is lost).
    () => ({ type: "image" as const, mediaType: "image/jpeg", data: Buffer.from(jpeg.encode({ data, width, height }, 85).data).toString("base64") }),
  ];
  for (const encode of encodings) {
    const image = encode();
    if (image.data.length <= maxBytes) return { image, width, height };
  }
  return undefined;
}

function pngOf(data: Buffer, width: number, height: number): string {
  const { PNG } = codecs();
  const png = new PNG({ width, height });
  data.copy(png.data);
  return PNG.sync.write(png).toString("base64");
}

/** Area-averaging downscale of RGBA pixels: each target pixel is the mean of the source pixels it covers. */
export function scaleRgba(source: { width: number; height: number; data: Uint8Array }, width: number, height: number): Buffer {
  const out = Buffer.alloc(width * height * 4);
  const xs = source.width / width;
  const ys = source.height / height;
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y * ys);
    const y1 = Math.max(y0 + 1, Math.min(source.height, Math.floor((y + 1) * ys)));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor(x * xs);
      const x1 = Math.max(x0 + 1, Math.min(source.width, Math.floor((x + 1) * xs)));
      let r = 0, g = 0, b = 0, a = 0;
      for (let sy = y0; sy < y1; sy++) {
        let i = (sy * source.width + x0) * 4;
        for (let sx = x0; sx < x1; sx++, i += 4) {
          r += source.data[i]!;
          g += source.data[i + 1]!;
          b += source.data[i + 2]!;
          a += source.data[i + 3]!;
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const o = (y * width + x) * 4;
      out[o] = Math.round(r / n);
      out[o + 1] = Math.round(g / n);
      out[o + 2] = Math.round(b / n);
      out[o + 3] = Math.round(a / n);
    }
  }
  return out;
}
