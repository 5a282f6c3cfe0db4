/**
 * The demo resource owner seeded into an empty database (README, "Try it"). Its password is public: a production
 * start (`NODE_ENV=production`) seeds no demo owner.
 */
export const DEMO_OWNER = {
  email: 'alice@example.com',
  name: 'Alice Demo',
  password: 'alice-demo-password',
  walletAddresses: ['https://wallet.example/alice'],
} as const
