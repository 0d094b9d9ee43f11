// Reliability "exposure" worker: writes the files of Arbor's that the CLI never writes (the desktop app's
// window state and log, the settings of the services) under HOME and USERDATA given as arguments, through
// the same modules the app uses. The section runs it under umask 022 and audits the modes.
import { join } from "node:path";
import { saveWindowState } from "../../../electron/hosts/electron/window-state";
import { appendPrivateLog, makePrivateDir, writePrivateFile } from "../../../electron/services/arbor-files";
import { SettingsStore } from "../../../electron/services/settings";

const [home, userData] = process.argv.slice(2);
saveWindowState(join(home, ".arbor", "window-state.json"), { width: 1000, height: 700, maximized: false });
new SettingsStore(join(home, ".arbor"), join(home, ".pi", "agent")).addRecentFile(join(home, "x.jsonl"));
appendPrivateLog(join(userData, "logs", "main.log"), "one line\n");
makePrivateDir(userData);
writePrivateFile(join(userData, "appearance.json"), '{"theme":"dark"}\n');
process.stdout.write("ok\n");
