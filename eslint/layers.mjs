// Arbor's layer walls (DESIGN.md "Layers") as one ESLint rule, `arbor/layers`: a file's folder says which
// folders of the repo, which npm packages and whether `node:*` / the `electron` module it may import.
// Stock `no-restricted-imports` lists what is forbidden; the walls are allow-lists (per layer, npm
// packages included), so they live here. Every import form counts: `import`, `export ... from`,
// `import()`, `require()`, `typeof import()` types; a computed `import(x)` / `require(x)` cannot be
// checked and is reported too (the few legitimate ones carry an eslint-disable comment saying why).
import { builtinModules } from "node:module";
import { dirname, relative, resolve, sep } from "node:path";
import { rawRecordsRule } from "./raw-records.mjs";

const root = resolve(import.meta.dirname, "..");
const builtins = new Set(builtinModules);

/** npm packages any test may use on top of its layer's own (the reference writers, the test runner). */
const TEST_PACKAGES = [
	"vitest",
	"jsdom",
	"ws",
	"esbuild",
	"typebox",
	"@sinclair/typebox",
	"@mariozechner/pi-coding-agent",
	"@mariozechner/pi-ai",
	"@earendil-works/pi-coding-agent",
	"@earendil-works/pi-ai",
	"@earendil-works/pi-tui",
	// A real Markdown reader, to judge what a pasted export renders as (headings, links).
	"marked",
];

/**
 * The layers, most specific folder first. `may`: repo folders (or files) the layer's files may import
 * besides their own folder. `packages`: npm packages allowed in the layer's non-test files. `node`:
 * whether `node:*` built-ins are allowed outside tests. `testMay`: extra folders its tests may import
 * (integration tests wire the real layers together).
 */
export const LAYERS = [
	{ folder: "shared", may: [], packages: [], node: false },
	// Node code both ends of the live channel share (the pi extension runs it inside pi: no npm package).
	{ folder: "shared-node", may: ["shared"], packages: [], node: true },
	{ folder: "electron/session", may: ["shared"], packages: [], node: true },
	{
		folder: "electron/services",
		may: ["electron/session", "shared-node", "shared"],
		packages: ["@earendil-works/pi-ai", "diff", "jiti", "minimatch", "ignore"],
		node: true,
		testMay: ["electron/api"],
	},
	{ folder: "electron/api", may: ["shared"], packages: ["zod"], node: true, testMay: ["electron/services", "electron/session"] },
	{
		folder: "electron/cli",
		// `arbor serve` runs the browser host and its crash guard headless: the one place the CLI reaches into hosts/.
		may: [
			"electron/services",
			"electron/session",
			"electron/api",
			"shared-node",
			"shared",
			"electron/hosts/browser",
			"electron/hosts/crash-guard",
			"package.json",
		],
		packages: [],
		node: true,
	},
	{
		folder: "electron/hosts",
		may: ["electron/api", "electron/services", "electron/session", "shared-node", "shared", "package.json"],
		packages: ["electron", "electron-updater", "ws"],
		node: true,
	},
	{ folder: "electron/test", may: ["eslint"], packages: [], node: true },
	// Runs inside pi / omp: the wire (shared/), the Node code both ends share (shared-node/) and pi's extension
	// API only (DESIGN.md "pi-extension/"); the package ships these three folders.
	{
		folder: "pi-extension",
		may: ["shared-node", "shared"],
		packages: ["@earendil-works/pi-coding-agent", "@oh-my-pi/pi-coding-agent"],
		node: true,
		testMay: ["electron/services", "electron/session"],
	},
	// Floors inside the renderer (docs/layers.md "Inside the renderer"): the store is the ground floor (state,
	// caches, selectors: nothing of the renderer above it); the graph draws what it is given and may read the
	// store's selectors, never the commands, panels or dialogs. Their tests may drive the whole app.
	{ folder: "renderer/store", may: ["shared"], packages: ["react", "zustand"], node: false, testMay: ["renderer"] },
	{
		folder: "renderer/graph",
		may: ["shared", "renderer/store"],
		packages: ["react", "react-dom", "@xyflow/react", "zustand", "d3-hierarchy"],
		node: false,
		testMay: ["renderer"],
	},
	{
		folder: "renderer",
		may: ["shared"],
		packages: ["react", "react-dom", "@xyflow/react", "zustand", "marked", "highlight.js", "dompurify", "d3-hierarchy"],
		node: false,
		// The client test talks to a real browser host on 127.0.0.1.
		testMay: ["electron/hosts/browser", "electron/api"],
	},
	{
		folder: "e2e",
		may: ["shared", "shared-node", "electron/session", "package.json"],
		packages: [
			"@playwright/test",
			"@axe-core/playwright",
			"@earendil-works/pi-coding-agent",
			"@earendil-works/pi-ai",
			"@mariozechner/pi-coding-agent",
			"electron",
		],
		node: true,
	},
	{
		folder: "bench",
		// Benchmarks measure the real modules of every layer (never the tests or e2e specs).
		may: ["shared", "shared-node", "electron", "renderer", "pi-extension", "package.json"],
		packages: [
			"esbuild",
			"ws",
			"d3-hierarchy",
			"@xyflow/react",
			"react",
			"react-dom",
			"playwright-core",
			"@playwright/test",
			"@mariozechner/pi-coding-agent",
			"@earendil-works/pi-coding-agent",
		],
		node: true,
	},
	{ folder: "scripts", may: ["bench/reliability", "package.json"], packages: ["@doyensec/electronegativity"], node: true },
	{
		folder: "build",
		may: ["package.json"],
		packages: ["esbuild", "js-yaml", "@electron/fuses", "@electron/asar", "electron-builder"],
		node: true,
		testMay: ["electron/hosts/electron/test"],
	},
	{ folder: "bin", may: ["dist"], packages: [], node: true },
];

const posix = (p) => p.split(sep).join("/");
const within = (path, folder) => path === folder || path.startsWith(`${folder}/`);
export const isTestFile = (rel) => /(^|\/)(test|testing)\//.test(rel) || /\.(test|spec)\.[cm]?[jt]sx?$/.test(rel);
const layerOf = (rel) => LAYERS.find((l) => within(rel, l.folder));
const packageName = (spec) => (spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);

/** Why `spec` may not be imported from the repo-relative file `rel`, or null when it may. */
export function verdict(rel, spec) {
	const layer = layerOf(rel);
	if (!layer) return null; // root config files (vite, vitest, playwright) wire everything
	const test = isTestFile(rel);
	const name = `${layer.folder}/`;
	if (spec.startsWith("node:") || builtins.has(packageName(spec))) {
		if (layer.node || test) return null;
		return `${name} is pure: no Node built-ins ("${spec}")`;
	}
	if (spec.startsWith(".") || spec.startsWith("/")) {
		const target = posix(relative(root, resolve(root, dirname(rel), spec)));
		if (within(target, layer.folder)) return null;
		if (target.startsWith("..") || within(target, "node_modules")) {
			// ../shared/fixtures and packages loaded by path (pi 1.6.0's dist/core hides behind its exports map)
			return test ? null : `${name} may not reach outside the repo ("${spec}")`;
		}
		if (layer.may.some((f) => within(target, f))) return null;
		if (test && (isTestFile(target) || (layer.testMay ?? []).some((f) => within(target, f)))) return null;
		const wall =
			within(target, "renderer") && !within(layer.folder, "renderer")
				? "the renderer is a separate app"
				: `${name} may import only ${[layer.folder, ...layer.may].join(", ")}`;
		return `${name} may not import ${target} (${wall})`;
	}
	const pkg = packageName(spec);
	if (layer.packages.includes(pkg)) return null;
	if (test && TEST_PACKAGES.includes(pkg)) return null;
	if (pkg === "electron") return `${name} may not import "electron" (only electron/hosts does)`;
	const allowed = layer.packages.length ? layer.packages.join(", ") : "none";
	return `${name} may not use npm package "${pkg}" (allowed here: ${allowed})`;
}

const literalOf = (node) => {
	if (!node) return undefined;
	if (node.type === "Literal" && typeof node.value === "string") return node.value;
	if (node.type === "TemplateLiteral" && node.expressions.length === 0) return node.quasis[0].value.cooked;
	if (node.type === "TSLiteralType") return literalOf(node.literal);
	return undefined;
};

const rule = {
	meta: {
		type: "problem",
		docs: { description: "Keep each layer's imports inside DESIGN.md's walls (folders, npm packages, node:*, electron)." },
		messages: {
			wall: "Layer wall: {{why}}.",
			computed: "Layer wall: a computed {{kind}}() cannot be checked against the layer rules; import a literal specifier.",
		},
		schema: [],
	},
	create(context) {
		const rel = posix(relative(root, context.filename));
		if (rel.startsWith("..")) return {};
		const check = (node, source, kind) => {
			const spec = literalOf(source);
			if (spec === undefined) {
				context.report({ node, messageId: "computed", data: { kind } });
				return;
			}
			const why = verdict(rel, spec);
			if (why) context.report({ node: source ?? node, messageId: "wall", data: { why } });
		};
		return {
			ImportDeclaration: (n) => check(n, n.source, "import"),
			ExportNamedDeclaration: (n) => n.source && check(n, n.source, "import"),
			ExportAllDeclaration: (n) => check(n, n.source, "import"),
			ImportExpression: (n) => check(n, n.source, "import"),
			TSImportType: (n) => check(n, n.source ?? n.argument, "import"),
			TSExternalModuleReference: (n) => check(n, n.expression, "require"),
			CallExpression(n) {
				if (n.callee.type === "Identifier" && n.callee.name === "require" && n.arguments.length === 1) check(n, n.arguments[0], "require");
			},
		};
	},
};

// The app's rooms (the session core above its formats, services, api, cli, hosts, shared, renderer); tests, benchmarks,
// scripts and the pi extension (which speaks pi's own API inside pi) may name raw records.
const APP_ROOMS = ["electron", "shared", "shared-node", "renderer"];
const rawRecords = rawRecordsRule(root, relative, posix, (rel) => isTestFile(rel) || !APP_ROOMS.some((f) => within(rel, f)));

export default { meta: { name: "arbor" }, rules: { layers: rule, "raw-records": rawRecords } };
