// `/arbor`: open pi's session file in Arbor. The desktop app when the user named it (ARBOR_APP, e.g. the
// AppImage or /Applications/Arbor.app/Contents/MacOS/Arbor), else this repo's `arbor serve FILE` (the browser
// host, which opens the default browser), else an `arbor` on PATH. Arbor finds this pi by its registration.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = typeof __dirname === "string" ? __dirname : path.dirname(fileURLToPath(import.meta.url));

export function arborCommand(file: string): { command: string; args: string[]; how: string } {
	const app = process.env.ARBOR_APP;
	if (app) return { command: app, args: [file], how: `the Arbor app (${app})` };
	const bin = path.join(here, "..", "bin", "arbor.cjs");
	if (existsSync(bin)) return { command: process.execPath, args: [bin, "serve", file], how: "Arbor in your browser (arbor serve)" };
	return { command: "arbor", args: ["serve", file], how: "Arbor in your browser (arbor serve)" };
}

export function openInArbor(file: string): Promise<string> {
	const { command, args, how } = arborCommand(file);
	return new Promise((resolve) => {
		const child = spawn(command, args, { detached: true, stdio: "ignore" });
		child.once("error", (err) => resolve(`Could not start Arbor (${command}): ${err.message}. Set ARBOR_APP to the Arbor app, or install the arbor command.`));
		child.once("spawn", () => {
			child.unref();
			resolve(`Opening ${path.basename(file)} in ${how}; it steers this pi while both run.`);
		});
	});
}
