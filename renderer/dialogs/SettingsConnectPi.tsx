// Settings ▸ Connect pi: the exact `pi install` command that loads this copy of Arbor's pi extension into pi
// (so `/arbor` and live steering work), and a button that runs it. The folder is the host's to name (the
// packaged app's copy outside its archive, or this install's); a missing pi is a clear message, not a failure.

import { useEffect, useRef, useState } from "react";
import type { PiConnection, PiConnectResult } from "../../shared/api";
import { useServices } from "../commands/services";
import { errorText } from "../store/dialogs";

export function ConnectPiSection() {
	const { client } = useServices();
	const [connection, setConnection] = useState<PiConnection | null>(null);
	const [result, setResult] = useState<PiConnectResult | null>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | null>(null);
	const said = useRef<HTMLParagraphElement>(null);
	// The answer appears at the dialog's bottom, below the fold of a small window: bring it into view.
	useEffect(() => said.current?.scrollIntoView({ block: "nearest" }), [result, error]);

	useEffect(() => {
		let live = true;
		client.request("getPiConnection", {}).then(
			(c) => live && setConnection(c),
			(err: unknown) => live && setError(`Could not find Arbor's pi extension: ${errorText(err)}`),
		);
		return () => {
			live = false;
		};
	}, [client]);

	const connect = async (): Promise<void> => {
		setBusy(true);
		setResult(null);
		setError(null);
		try {
			setResult(await client.request("connectPi", {}));
		} catch (err) {
			setError(`Could not run pi: ${errorText(err)}`);
		} finally {
			setBusy(false);
		}
	};

	return (
		<fieldset data-testid="settings-connect-pi">
			<legend>Connect pi</legend>
			{connection?.command ? (
				<>
					<p className="muted">
						Load Arbor&apos;s extension into pi: then <code>/arbor</code> in pi opens the session here, and Arbor steers the running pi.
					</p>
					<div className="settings-connect-row">
						<code className="settings-connect-command" data-testid="settings-connect-command">
							{connection.command}
						</code>
						<button type="button" data-testid="settings-connect-run" disabled={busy} onClick={() => void connect()}>
							{busy ? "Running…" : "Run it"}
						</button>
					</div>
				</>
			) : (
				connection && <p className="muted">This copy of Arbor does not ship the pi extension.</p>
			)}
			{result && (
				<p
					className={`${result.ok ? "ok-text" : "error-text"} settings-connect-result`}
					role={result.ok ? "status" : "alert"}
					data-testid="settings-connect-result"
					ref={said}
				>
					{result.message}
				</p>
			)}
			{error && (
				<p className="error-text settings-connect-result" role="alert" ref={said}>
					{error}
				</p>
			)}
		</fieldset>
	);
}
