/**
 * Headers as fetch's Headers has them, without touching the global Headers: that global is a lazy
 * getter that loads Node's bundled undici (~28 ms of CPU), which Cairn's model requests never
 * need (http-fetch.ts). Names are lowercase; repeated values read back joined with ", ", and
 * iteration is sorted by name with each set-cookie on its own, as fetch does. Values are checked
 * with fetch's own words, which settings-fault.ts recognises, so a bad value fails as it did.
 */
/** What fetch takes as headers (the type only: naming it loads nothing). */
export type HeadersInit = NonNullable<ConstructorParameters<typeof Headers>[0]>;

export class FetchHeaders implements Headers {
  readonly #values = new Map<string, string[]>();

  constructor(init?: HeadersInit | Iterable<readonly [string, string]> | null) {
    if (init) for (const [name, value] of headerPairs(init)) this.append(name, value);
  }

  append(name: string, value: string): void {
    const key = checkedName("append", name);
    const list = this.#values.get(key);
    const checked = checkedValue("append", value);
    if (list) list.push(checked);
    else this.#values.set(key, [checked]);
  }

  set(name: string, value: string): void {
    this.#values.set(checkedName("set", name), [checkedValue("set", value)]);
  }

  delete(name: string): void {
    this.#values.delete(name.toLowerCase());
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase())?.join(", ") ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  getSetCookie(): string[] {
    return [...(this.#values.get("set-cookie") ?? [])];
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this) callback.call(thisArg, value, name, this);
  }

  *entries(): HeadersIterator<[string, string]> {
    for (const name of [...this.#values.keys()].sort()) {
      const values = this.#values.get(name)!;
      if (name === "set-cookie") for (const value of values) yield [name, value];
      else yield [name, values.join(", ")];
    }
  }

  *keys(): HeadersIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): HeadersIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }

  /** Each name once, lowercase, with its values joined, in the order first set: the order fetch sends them in. */
  inOrder(): Array<[string, string]> {
    return [...this.#values].map(([name, values]) => [name, values.join(", ")]);
  }

  get [Symbol.toStringTag](): string {
    return "Headers";
  }
}

type HeadersIterator<T> = Generator<T, undefined, unknown>;

/** The name and value pairs of anything fetch takes as headers: a plain object, pairs, or a Headers. */
export function headerPairs(init: HeadersInit | Iterable<readonly [string, string]>): Array<[string, string]> {
  const iterable = init as Partial<Iterable<unknown>>;
  if (typeof iterable[Symbol.iterator] === "function") {
    return [...(init as Iterable<unknown>)].map((pair) => {
      const items = [...(pair as Iterable<unknown>)];
      if (items.length !== 2) throw new TypeError(`Headers constructor: expected name/value pair to be length 2, found ${items.length}.`);
      return [String(items[0]), String(items[1])];
    });
  }
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(init as Record<string, string | readonly string[]>)) {
    if (Array.isArray(value)) for (const each of value) pairs.push([name, String(each)]);
    else pairs.push([name, String(value)]);
  }
  return pairs;
}

const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function checkedName(method: string, name: string): string {
  if (!token.test(name)) throw new TypeError(`Headers.${method}: "${name}" is an invalid header name.`);
  return name.toLowerCase();
}

/** Fetch's normalisation (HTTP whitespace trimmed at both ends) and its two refusals. */
function checkedValue(method: string, raw: string): string {
  const value = String(raw);
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code > 0xff) throw new TypeError(`Cannot convert argument to a ByteString because the character at index ${index} has a value of ${code} which is greater than 255.`);
  }
  const trimmed = value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
  if (/[\0\r\n]/.test(trimmed)) throw new TypeError(`Headers.${method}: "${trimmed}" is an invalid header value.`);
  return trimmed;
}
