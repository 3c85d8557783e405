// The personal data the request-logs feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const requestLogsPersonalData: PersonalData = {
  places: [
    {
      table: 'request_logs',
      link: null,
      personal: [],
      other: [
        'request_id',
        'key_prefix',
        'method',
        'path',
        'operation_id',
        'mcp_tool',
        'error_code',
        'error_message',
        'ip',
      ],
      onErase: 'NONE',
      note: "Request metadata of the API's callers (no bodies; paths carry ids only), kept REQUEST_LOG_RETENTION_DAYS.",
    },
  ],
};
