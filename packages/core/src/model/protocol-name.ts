/**
 * How tool calls travel between Cairn and the model: xml (text in the reply) or native (the
 * provider's tool calls, a request's `tools`). A leaf in model, the lowest floor, so events,
 * storage and settings name it without importing the protocols (which sit above the tools).
 */
export const protocolNames = ["xml", "native"] as const;

export type ProtocolName = (typeof protocolNames)[number];
