// /arbor prefers the installed desktop app (issue #27): ARBOR_APP, else the app that recorded itself in
// ~/.arbor/app.json (written by the app's own code, 0600); a removed or damaged record is ignored and the
// browser host (which stops by itself when unused) is started instead.
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appExecutable, recordAppInstall } from "../../electron/services/app-install";
import { arborCommand, desktopApp } from "../open-arbor";

describe("/arbor finds the desktop app", () => {
	it("opens the app recorded in ~/.arbor/app.json (0600), ARBOR_APP overriding it; a removed or damaged record is ignored", () => {
		const home = mkdtempSync(join(tmpdir(), "arbor-app-home-"));
		const exe = join(home, "Arbor.AppImage");
		writeFileSync(exe, "#!/bin/sh\n");
		expect(desktopApp({}, home)).toBeNull();
		expect(arborCommand("/s.jsonl", {}, home).kind).toBe("serve");
		expect(arborCommand("/s.jsonl", {}, home).args).toContain("--exit-when-idle");

		recordAppInstall(join(home, ".arbor"), { executable: appExecutable("/tmp/.mount_x/arbor", { APPIMAGE: exe }, "linux"), version: "1.2.3", extension: null });
		expect(statSync(join(home, ".arbor", "app.json")).mode & 0o777).toBe(0o600);
		expect(arborCommand("/s.jsonl", {}, home)).toMatchObject({ command: exe, args: ["/s.jsonl"], kind: "app" });
		expect(arborCommand("/s.jsonl", { ARBOR_APP: "/other/Arbor" }, home)).toMatchObject({ command: "/other/Arbor", kind: "app" });

		writeFileSync(join(home, ".arbor", "app.json"), '{"executable": 7}');
		expect(desktopApp({}, home)).toBeNull();
		recordAppInstall(join(home, ".arbor"), { executable: join(home, "uninstalled"), version: "1.2.3", extension: null });
		expect(desktopApp({}, home)).toBeNull();
		expect(appExecutable("/Applications/Arbor.app/Contents/MacOS/Arbor", { APPIMAGE: exe }, "darwin")).toBe("/Applications/Arbor.app/Contents/MacOS/Arbor");
	});
});
