export type { CallOutcome, ParsedCall, ProtocolEvent, ProtocolName, ToolProtocol, TurnParser } from "./types.js";
export { coerceXmlParams } from "./coerce.js";
export { nativeProtocol, toolSpec } from "./native.js";
export { textCallNote } from "./text-calls.js";
export { xmlProtocol, xmlToolSection } from "./xml/xml-protocol.js";
export { XmlStreamParser, type XmlParseEvent, type XmlToolSpec } from "./xml/stream-parser.js";

import { nativeProtocol } from "./native.js";
import type { ProtocolName, ToolProtocol } from "./types.js";
import { xmlProtocol } from "./xml/xml-protocol.js";

export function protocolFor(name: ProtocolName): ToolProtocol {
  return name === "xml" ? xmlProtocol : nativeProtocol;
}
