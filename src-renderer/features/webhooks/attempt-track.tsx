// One delivery's attempts on a horizontal time axis: a dot per attempt coloured by outcome, a hollow dot for
// the next scheduled attempt; hovering a dot tells when, which kind, the answer and how long it took.
import { Box, Group, Text, Tooltip } from '@mantine/core';
import type { DeliveryAttempt } from '../../../src-shared/schemas/webhooks';
import { formatTime } from '../../app/format';
import { attemptOutcome, buildTrack, formatDuration, OUTCOME_COLOR, OUTCOME_LABEL } from './timeline';

const DOT = 14;

function attemptLabel(a: DeliveryAttempt): string {
  const kind = a.kind === 'scheduled' ? `Attempt ${a.attempt ?? ''}`.trim() : a.kind === 'manual' ? `Manual retry ${a.attempt ?? ''}`.trim() : a.kind === 'replay' ? 'Replay' : 'Forward to local receiver';
  const answer = a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? 'no response');
  return `${kind} — ${formatTime(a.startedAt)} — ${answer} — ${formatDuration(a.durationMs)}`;
}

export function AttemptTrack({ createdAt, attempts, nextAttemptAt, testId }: { createdAt: string; attempts: DeliveryAttempt[]; nextAttemptAt: string | null; testId?: string }) {
  const track = buildTrack(createdAt, attempts, nextAttemptAt);
  return (
    <Box data-testid={testId} style={{ minWidth: 220 }}>
      <Box pos="relative" h={DOT + 6} mx={DOT / 2}>
        <Box pos="absolute" left={0} right={0} top="50%" h={2} bg="gray.3" style={{ transform: 'translateY(-50%)' }} />
        {track.points.map((p) => {
          const a = attempts[p.index];
          if (!a) return null;
          const outcome = attemptOutcome(a);
          return (
            <Tooltip key={p.index} label={`${attemptLabel(a)} (${OUTCOME_LABEL[outcome]})`} withArrow multiline maw={360}>
              <Box
                data-testid="attempt-dot"
                data-outcome={outcome}
                data-kind={a.kind}
                pos="absolute"
                top="50%"
                left={`${p.percent}%`}
                w={DOT}
                h={DOT}
                bg={`${OUTCOME_COLOR[outcome]}.6`}
                style={{
                  borderRadius: a.kind === 'scheduled' ? '50%' : 3,
                  transform: 'translate(-50%, -50%)',
                  border: '2px solid var(--mantine-color-body)',
                  cursor: 'default',
                }}
              />
            </Tooltip>
          );
        })}
        {track.next && (
          <Tooltip label={`Next attempt scheduled ${formatTime(nextAttemptAt)}`} withArrow>
            <Box
              data-testid="attempt-next"
              pos="absolute"
              top="50%"
              left={`${track.next.percent}%`}
              w={DOT}
              h={DOT}
              style={{ borderRadius: '50%', transform: 'translate(-50%, -50%)', border: '2px dashed var(--mantine-color-blue-6)', background: 'var(--mantine-color-body)' }}
            />
          </Tooltip>
        )}
      </Box>
      <Group justify="space-between" gap={4} wrap="nowrap">
        <Text size="xs" c="dimmed">
          {formatTime(new Date(track.start).toISOString())}
        </Text>
        {track.end - track.start > 0 && (
          <Text size="xs" c="dimmed">
            +{formatDuration(track.end - track.start)}
          </Text>
        )}
      </Group>
    </Box>
  );
}

export function TrackLegend() {
  return (
    <Group gap="md">
      {(['success', 'http-error', 'no-response'] as const).map((o) => (
        <Group key={o} gap={6}>
          <Box w={10} h={10} bg={`${OUTCOME_COLOR[o]}.6`} style={{ borderRadius: '50%' }} />
          <Text size="xs" c="dimmed">
            {OUTCOME_LABEL[o]}
          </Text>
        </Group>
      ))}
      <Group gap={6}>
        <Box w={10} h={10} style={{ borderRadius: '50%', border: '2px dashed var(--mantine-color-blue-6)' }} />
        <Text size="xs" c="dimmed">
          Next scheduled attempt
        </Text>
      </Group>
      <Text size="xs" c="dimmed">
        Round: scheduled attempt · square: manual retry, replay or forward
      </Text>
    </Group>
  );
}
