import { ErasureSection } from './erasure-section';
import { HoldsSection } from './holds-section';
import { RetentionSection } from './retention-section';

/** Records (directors; the server refuses anyone else): retention, legal holds and erasure requests. */
export function RecordsPage() {
  return (
    <div className="page records-page">
      <div className="page-header">
        <div>
          <h1>Records</h1>
          <p className="muted">
            What the firm keeps and for how long: destroy records past their retention period, keep disputed ones under a legal hold, and
            decide clients&rsquo; requests to be erased. Every step is in the audit trail.
          </p>
        </div>
      </div>
      {/* Three long sections: a way straight to each, on any screen. */}
      <nav className="records-jump" aria-label="On this page">
        <a href="#retention-title">Retention</a>
        <a href="#holds-title">Legal holds</a>
        <a href="#erasure-title">Erasure requests</a>
      </nav>
      <div className="stack">
        <RetentionSection />
        <HoldsSection />
        <ErasureSection />
      </div>
    </div>
  );
}
