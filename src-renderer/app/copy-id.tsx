// An id as the console shows it everywhere (issue 13 §4): one line, cut with an ellipsis when the column is narrow
// (the full id in its title), and a named copy button beside it — never wrapped over two lines.
import { ActionIcon, Code, CopyButton, Group, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

export function IdWithCopy({ id, what = 'id', testId, maxWidth }: { id: string; what?: string; testId?: string; maxWidth?: number | string }) {
  return (
    <Group gap={2} wrap="nowrap" style={{ minWidth: 0, maxWidth }} onClick={(e) => e.stopPropagation()}>
      <Code
        data-testid={testId}
        title={id}
        style={{ display: 'block', whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis', minWidth: 0 }}
      >
        {id}
      </Code>
      <CopyButton value={id}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : `Copy ${what}`} withArrow>
            <ActionIcon size="sm" variant="subtle" color={copied ? 'green' : 'gray'} onClick={copy} aria-label={`Copy ${what} ${id}`}>
              {copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}
