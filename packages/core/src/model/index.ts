export * from "./types.js";
export * from "./errors.js";
export { classifyModelError } from "./classify-error.js";
export { costOf } from "./cost.js";
export { baseUrlProblem, redactUrl, type Endpoint } from "./endpoint.js";
export { defaultRequestTimeoutSeconds } from "./guarded-fetch.js";
export { modelInfo } from "./catalog.js";
export { defaultRetryPolicy, parseRetryAfter, retryDelayMs, sleep, type RetryPolicy } from "./retry.js";
export { apiKeyFromEnv, createModel, isProviderId, ModelConfigError, providerIds, providers, type ModelConfig } from "./providers.js";
