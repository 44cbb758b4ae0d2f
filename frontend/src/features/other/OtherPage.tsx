// Placeholder until the feature lands.
export default function OtherPage() {
  return <main><h1>OtherPage</h1></main>;
}
