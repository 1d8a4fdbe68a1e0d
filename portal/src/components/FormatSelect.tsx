import type { ReturnFormat } from '@docsmith/client';
import { RETURN_FORMATS } from '../files';

/** The output formats, PDF/A under its usual name. */
export function FormatSelect({ value, onChange }: { value: ReturnFormat; onChange(format: ReturnFormat): void }) {
  return (
    <label>
      Format
      <select value={value} onChange={(e) => onChange(e.currentTarget.value as ReturnFormat)}>
        {RETURN_FORMATS.map((f) => (
          <option key={f} value={f}>
            {f === 'PDFA' ? 'PDF/A' : f}
          </option>
        ))}
      </select>
    </label>
  );
}
