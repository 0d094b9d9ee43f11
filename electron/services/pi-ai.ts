// Lazy access to @earendil-works/pi-ai (1.6, the current API: createModels / providers). The package is
// ESM-only and the main process is bundled to CommonJS, so a static import would become a require()
// that Node 20 refuses; a dynamic import() works in both.

import type { ProviderStreams } from "@earendil-works/pi-ai";

export type PiAi = typeof import("@earendil-works/pi-ai");
export type PiAiProviders = typeof import("@earendil-works/pi-ai/providers/all");

let loaded: Promise<PiAi> | undefined;
let providers: Promise<PiAiProviders> | undefined;

export function loadPiAi(): Promise<PiAi> {
	loaded ??= import("@earendil-works/pi-ai");
	return loaded;
}

/** Every built-in provider factory and the generated catalog (the heavy entry; loaded once). */
export function loadPiAiProviders(): Promise<PiAiProviders> {
	providers ??= import("@earendil-works/pi-ai/providers/all");
	return providers;
}

/** Wire protocols a custom endpoint (Arbor settings, pi's models.json) may name, with their lazy implementation. */
const API_LOADERS: Readonly<Record<string, () => Promise<ProviderStreams>>> = {
	"openai-completions": async () => (await import("@earendil-works/pi-ai/api/openai-completions.lazy")).openAICompletionsApi(),
	"openai-responses": async () => (await import("@earendil-works/pi-ai/api/openai-responses.lazy")).openAIResponsesApi(),
	"anthropic-messages": async () => (await import("@earendil-works/pi-ai/api/anthropic-messages.lazy")).anthropicMessagesApi(),
	"google-generative-ai": async () => (await import("@earendil-works/pi-ai/api/google-generative-ai.lazy")).googleGenerativeAIApi(),
	"mistral-conversations": async () => (await import("@earendil-works/pi-ai/api/mistral-conversations.lazy")).mistralConversationsApi(),
	"azure-openai-responses": async () => (await import("@earendil-works/pi-ai/api/azure-openai-responses.lazy")).azureOpenAIResponsesApi(),
	"pi-messages": async () => (await import("@earendil-works/pi-ai/api/pi-messages.lazy")).piMessagesApi(),
};

export async function loadApi(api: string): Promise<ProviderStreams | undefined> {
	const load = API_LOADERS[api];
	return load ? load() : undefined;
}
