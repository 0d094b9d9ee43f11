// Module mapping, as pi does it: an extension's imports of pi's own packages resolve to the copies the
// host runs, not to whatever (if anything) sits next to the extension. pi 1.6 maps
// `@earendil-works/*` and the older `@mariozechner/*` names, `typebox` and `@sinclair/typebox`; Arbor
// maps the same specifiers to its installed copies (package.json `dependencies`, so the packaged app has
// them) and `@earendil-works/pi-coding-agent` to its own module (pi-coding-agent-shim.ts).

import { piCodingAgentShim } from "./pi-coding-agent-shim";

// A specifier in a variable stays a real import() in the CommonJS bundle, resolved from node_modules at
// run time (the packages are ESM-only and large: neither bundled nor require()d).
// eslint-disable-next-line arbor/layers -- an extension's runtime package, resolved at run time on purpose (see above)
const importRuntime = (specifier: string): Promise<Record<string, unknown>> => import(specifier) as Promise<Record<string, unknown>>;

async function optional(specifier: string): Promise<Record<string, unknown> | undefined> {
	try {
		return await importRuntime(specifier);
	} catch {
		return undefined;
	}
}

/** A module Arbor cannot provide: importing it works, using any of its values throws a clear error. */
function missingModule(specifier: string): Record<string, unknown> {
	return new Proxy({} as Record<string, unknown>, {
		get(_t, prop) {
			if (typeof prop === "symbol" || prop === "then" || prop === "__esModule") return undefined;
			return () => {
				throw new Error(`${specifier} is not installed with Arbor (${String(prop)} is unavailable)`);
			};
		},
	});
}

/**
 * pi-ai as extensions see it in pi 1.6: the compat entry (a superset of the main one) plus TypeBox's
 * `Type` and a `StringEnum` helper, which pi-ai itself no longer exports.
 */
function piAiExtensionView(compat: Record<string, unknown>, typebox: Record<string, unknown>): Record<string, unknown> {
	const Type = typebox.Type as { Unsafe(schema: Record<string, unknown>): unknown };
	const StringEnum = (values: readonly string[], options?: { description?: string; default?: string }): unknown =>
		Type.Unsafe({
			type: "string",
			enum: [...values],
			...(options?.description ? { description: options.description } : {}),
			...(options?.default ? { default: options.default } : {}),
		});
	return { ...compat, Type, StringEnum };
}

let loading: Promise<Record<string, unknown>> | undefined;

/** jiti `virtualModules`: specifier → module object. Loaded once per process. */
export function extensionModules(): Promise<Record<string, unknown>> {
	loading ??= (async () => {
		const [typebox, typeboxCompile, typeboxValue, compat, models, oauth, providers, tui, agentCore] = await Promise.all([
			importRuntime("typebox"),
			importRuntime("typebox/compile"),
			importRuntime("typebox/value"),
			importRuntime("@earendil-works/pi-ai/compat"),
			importRuntime("@earendil-works/pi-ai/models"),
			importRuntime("@earendil-works/pi-ai/oauth"),
			optional("@earendil-works/pi-ai/providers/all"),
			importRuntime("@earendil-works/pi-tui"),
			// Not one of Arbor's dependencies: used when present (development), otherwise a stand-in whose
			// values throw when used. pi's examples only import types from it.
			optional("@earendil-works/pi-agent-core"),
		]);
		const piAi = piAiExtensionView(compat, typebox);
		const core = agentCore ?? missingModule("@earendil-works/pi-agent-core");
		const agent = piCodingAgentShim();
		const map: Record<string, unknown> = {
			typebox,
			"typebox/compile": typeboxCompile,
			"typebox/value": typeboxValue,
			"@sinclair/typebox": typebox,
			"@sinclair/typebox/compile": typeboxCompile,
			"@sinclair/typebox/value": typeboxValue,
		};
		for (const scope of ["@earendil-works", "@mariozechner"]) {
			map[`${scope}/pi-ai`] = piAi;
			map[`${scope}/pi-ai/compat`] = piAi;
			map[`${scope}/pi-ai/models`] = models;
			map[`${scope}/pi-ai/oauth`] = oauth;
			map[`${scope}/pi-ai/providers/all`] = providers ?? missingModule(`${scope}/pi-ai/providers/all`);
			map[`${scope}/pi-tui`] = tui;
			map[`${scope}/pi-agent-core`] = core;
			map[`${scope}/pi-coding-agent`] = agent;
		}
		return map;
	})();
	return loading;
}
