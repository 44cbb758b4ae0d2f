// Placeholder until the feature lands.
export default function LandingPage() {
  return <main><h1>LandingPage</h1></main>;
}
