// @@SOURCE@@

public static class SmolHarness
{
    private static string SmolLine()
    {
        string line = System.Console.In.ReadLine();
        return line ?? "";
    }

    private static int SmolInt()
    {
        return int.Parse(SmolLine(), System.Globalization.CultureInfo.InvariantCulture);
    }

    public static void Main()
    {
        // @@READ_ARGS@@
        // @@CALL_AND_PRINT@@
    }
}
