// Placeholder until the feature lands.
export default function SettingsPage() {
  return <main><h1>SettingsPage</h1></main>;
}
