// The loopback LLM server for service tests; the implementation lives in ../../testing so e2e can use it too.
export { type LlmScenario, type LlmServer, type RecordedRequest, startLlmServer } from "../../testing/llm-server";
