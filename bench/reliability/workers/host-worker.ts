// Starts the real browser host (startBrowserHost: the same code as `arbor serve`) in this process for the
// host figures; the parent passes files/dirs and points HOME at a temp dir so no real settings are touched.
//
// IPC: { files, dirs, rendererDir? } -> { started, url, token, port, failed }.

import { startBrowserHost } from "../../../electron/hosts/browser/server";
import { errorText } from "../../../shared/guards";

process.on("message", (m: { files: string[]; dirs: string[]; rendererDir?: string }) => {
	startBrowserHost({ port: 0, files: m.files, dirs: m.dirs, rendererDir: m.rendererDir, log: () => {} }).then(
		(host) => process.send?.({ started: true, url: host.url, token: host.token, port: host.port, failed: host.failed, pid: process.pid }),
		(err: unknown) => process.send?.({ started: true, error: errorText(err) }),
	);
});
process.send?.({ ready: true });
