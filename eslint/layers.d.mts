// Types of eslint/layers.mjs for the tests that import it (electron/test/layering.test.ts).
export interface Layer {
	folder: string;
	may: string[];
	packages: string[];
	node: boolean;
	testMay?: string[];
}
export const LAYERS: Layer[];
export function verdict(file: string, spec: string): string | null;
export function isTestFile(file: string): boolean;
declare const plugin: { meta: { name: string }; rules: Record<string, unknown> };
export default plugin;
