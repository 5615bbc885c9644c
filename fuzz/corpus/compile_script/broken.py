def f(x:
  return (((((