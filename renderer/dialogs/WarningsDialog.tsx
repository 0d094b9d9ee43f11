// Load warnings of the active file (malformed lines, orphans, cycles...), each with its line number.

import { useApp } from "../store";
import { activeSession } from "../store/selectors";
import { Modal } from "./Modal";

export function WarningsDialog() {
	const session = useApp(activeSession);
	const close = useApp((s) => s.closeDialog);
	if (!session) return null;
	const { warnings, warningCount, path } = session.summary;
	return (
		<Modal title={`${warningCount} warning${warningCount === 1 ? "" : "s"} while reading the file`} testId="warnings-dialog" wide>
			<p className="mono muted">{path}</p>
			<ul className="warnings">
				{warnings.map((w, i) => (
					<li key={i} data-testid="warning-item">
						<span className="mono">{w.line > 0 ? `line ${w.line}` : "file"}</span> <span className="kind-badge">{w.kind}</span> {w.message}
					</li>
				))}
			</ul>
			{warningCount > warnings.length && <p className="muted">…and {warningCount - warnings.length} more.</p>}
			<div className="button-row">
				<button type="button" onClick={() => close("warnings")}>
					Close
				</button>
			</div>
		</Modal>
	);
}
