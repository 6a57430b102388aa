/** How tool calls travel: xml (text in the reply) or native (the provider's tool calls). A leaf, so events and storage name it without the protocols. */
export const protocolNames = ["xml", "native"] as const;

export type ProtocolName = (typeof protocolNames)[number];
