// Known-answer and behaviour tests for webhook secrets, X-Signature and Standard Webhooks signatures.
import { describe, it, expect } from 'vitest';
import {
  generateWebhookSecret,
  standardWebhookHeader,
  standardWebhookSignature,
  verifyStandardWebhook,
  verifyXSignature,
  xSignature,
} from '../../../src-main/core/webhooks/signing';

// Vector from the Standard Webhooks reference libraries' test suites (standard-webhooks/standard-webhooks,
// libraries/javascript/src/webhook.test.ts; the same values appear in svix-webhooks' tests). Re-checked with
// `openssl dgst -sha256 -mac HMAC -macopt hexkey:<base64-decoded secret> -binary | base64`.
const SW = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  expected: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

// Computed independently in a shell:
//   printf '%s' '{"event":"verification.completed","verificationId":"ver_123"}' \
//     | openssl dgst -sha256 -hmac 'whsec_00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff'
const X = {
  secret: 'whsec_00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',
  body: '{"event":"verification.completed","verificationId":"ver_123"}',
  expected: 'sha256=fb03e51b838dd58f487718df71abd50f445c3a0897b7b2d8b8778e777fc9b969',
};

describe('generateWebhookSecret', () => {
  it('is whsec_ + 64 lowercase hex and random', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(b).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
  });
});

describe('X-Signature', () => {
  it('matches the openssl vector (key = secret string incl. prefix)', () => {
    expect(xSignature(X.secret, X.body)).toBe(X.expected);
    expect(xSignature(X.secret, new TextEncoder().encode(X.body))).toBe(X.expected);
  });

  it('signs bytes, not re-serialised JSON', () => {
    const reserialised = JSON.stringify(JSON.parse(X.body), null, 1);
    expect(xSignature(X.secret, reserialised)).not.toBe(X.expected);
  });

  it('keys with the prefix included (differs from keying with the bare hex)', () => {
    expect(xSignature(X.secret.slice('whsec_'.length), X.body)).not.toBe(X.expected);
  });

  it('verifies the full header value including the prefix', () => {
    expect(verifyXSignature(X.secret, X.body, X.expected)).toBe(true);
    expect(verifyXSignature(X.secret, X.body, X.expected.slice('sha256='.length))).toBe(false);
    expect(verifyXSignature(X.secret, X.body, X.expected.toUpperCase())).toBe(false);
    expect(verifyXSignature(X.secret, X.body, undefined)).toBe(false);
    expect(verifyXSignature(X.secret, X.body, '')).toBe(false);
    expect(verifyXSignature(X.secret, X.body + ' ', X.expected)).toBe(false);
    expect(verifyXSignature(generateWebhookSecret(), X.body, X.expected)).toBe(false);
    expect(verifyXSignature(X.secret, X.body, X.expected + '0')).toBe(false);
  });
});

describe('Standard Webhooks signature', () => {
  it('matches the reference vector', () => {
    expect(standardWebhookSignature(SW.secret, SW.msgId, SW.timestamp, SW.body)).toBe(SW.expected);
    expect(standardWebhookSignature(SW.secret, SW.msgId, SW.timestamp, Buffer.from(SW.body))).toBe(SW.expected);
  });

  it('verifies within tolerance and rejects outside it', () => {
    const headers = { 'webhook-id': SW.msgId, 'webhook-timestamp': String(SW.timestamp), 'webhook-signature': SW.expected };
    expect(verifyStandardWebhook(SW.secret, headers, SW.body, SW.timestamp)).toBe(true);
    expect(verifyStandardWebhook(SW.secret, headers, SW.body, SW.timestamp + 300)).toBe(true);
    expect(verifyStandardWebhook(SW.secret, headers, SW.body, SW.timestamp + 301)).toBe(false);
    expect(verifyStandardWebhook(SW.secret, headers, SW.body, SW.timestamp - 301)).toBe(false);
    expect(verifyStandardWebhook(SW.secret, headers, SW.body, SW.timestamp + 1000, 2000)).toBe(true);
  });

  it('rejects tampering and missing headers', () => {
    const headers = { 'webhook-id': SW.msgId, 'webhook-timestamp': String(SW.timestamp), 'webhook-signature': SW.expected };
    const now = SW.timestamp;
    expect(verifyStandardWebhook(SW.secret, headers, '{"test": 2432232315}', now)).toBe(false);
    expect(verifyStandardWebhook(SW.secret, { ...headers, 'webhook-id': 'msg_other' }, SW.body, now)).toBe(false);
    expect(verifyStandardWebhook(SW.secret, { ...headers, 'webhook-timestamp': String(now + 1) }, SW.body, now)).toBe(false);
    expect(verifyStandardWebhook(SW.secret, { ...headers, 'webhook-signature': 'v2,' + SW.expected.slice(3) }, SW.body, now)).toBe(false);
    expect(verifyStandardWebhook(SW.secret, { ...headers, 'webhook-signature': undefined }, SW.body, now)).toBe(false);
    expect(verifyStandardWebhook(SW.secret, { ...headers, 'webhook-timestamp': 'abc' }, SW.body, now)).toBe(false);
    expect(verifyStandardWebhook('whsec_' + Buffer.from('other key').toString('base64'), headers, SW.body, now)).toBe(false);
  });

  it('dual-signs after rotation: either secret verifies the header', () => {
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    const header = standardWebhookHeader([oldSecret, newSecret], 'del_1', 1700000000, '{}');
    const parts = header.split(' ');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toBe(standardWebhookSignature(oldSecret, 'del_1', 1700000000, '{}'));
    expect(parts[1]).toBe(standardWebhookSignature(newSecret, 'del_1', 1700000000, '{}'));
    const headers = { 'webhook-id': 'del_1', 'webhook-timestamp': '1700000000', 'webhook-signature': header };
    expect(verifyStandardWebhook(oldSecret, headers, '{}', 1700000010)).toBe(true);
    expect(verifyStandardWebhook(newSecret, headers, '{}', 1700000010)).toBe(true);
    expect(verifyStandardWebhook(generateWebhookSecret(), headers, '{}', 1700000010)).toBe(false);
  });
});
